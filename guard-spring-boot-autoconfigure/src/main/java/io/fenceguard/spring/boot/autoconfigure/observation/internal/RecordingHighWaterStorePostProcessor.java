package io.fenceguard.spring.boot.autoconfigure.observation.internal;

import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.spring.observation.FenceguardActivity;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Wraps the high-water store bean of one name in a {@link RecordingHighWaterStore}, so that its answers show
 * in {@link FenceguardActivity}; left as it is when there is no activity bean. Loaded only with fenceguard-http-filter.
 */
public class RecordingHighWaterStorePostProcessor implements BeanPostProcessor {

    private final String beanName;
    private final ObjectProvider<FenceguardActivity> activity;

    /**
     * @param beanName the store's bean name (not its type: the application's own stores are not wrapped)
     * @param activity looked up when the store is created, as a post-processor is created before other beans
     */
    public RecordingHighWaterStorePostProcessor(String beanName, ObjectProvider<FenceguardActivity> activity) {
        this.beanName = beanName;
        this.activity = activity;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String name) {
        if (beanName.equals(name) && bean instanceof HighWaterStore store && !(bean instanceof RecordingHighWaterStore)) {
            FenceguardActivity seen = activity.getIfAvailable();
            return seen == null ? bean : new RecordingHighWaterStore(store, seen);
        }
        return bean;
    }
}
