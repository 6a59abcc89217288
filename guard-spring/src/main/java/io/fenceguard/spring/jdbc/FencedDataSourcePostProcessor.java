package io.fenceguard.spring.jdbc;

import io.fenceguard.core.RefusalListener;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.DirectFieldAccessor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;
import org.springframework.util.function.SingletonSupplier;

/**
 * Fences every physical DataSource of the application exactly once:
 * <ul>
 *   <li>a physical DataSource bean (a pool) is wrapped in a {@link FencedDataSource}; one declared by
 *       its own class ({@code HikariDataSource pool()}) beside other DataSource beans keeps its class
 *       (a subclass proxy whose connections come from the fence, {@link ClassPreservingFence}), because
 *       the DataSource bean over it (a lazy or routing one) is usually given it by that class;</li>
 *   <li>a delegating one ({@link DelegatingDataSource}: {@code LazyConnectionDataSourceProxy},
 *       {@code TransactionAwareDataSourceProxy}, ...) is never wrapped itself: its target is fenced in
 *       place, unless it is fenced already (a bean wrapped before it), so the proxy stays outermost;</li>
 *   <li>a routing one ({@link AbstractRoutingDataSource}): each of its targets, likewise;</li>
 *   <li>a fenced one (a {@link FencedDataSource}, or a wrapper of one) is left as it is;</li>
 *   <li>excluded bean names are left unfenced, also where they are the target of a delegating or routing
 *       DataSource.</li>
 * </ul>
 * Every {@link RefusalListener} bean hears of each refused statement. Its configuration is made at
 * the first DataSource, because a post-processor must not pull other beans in early. Loaded only with
 * fenceguard-jdbc and spring-jdbc.
 */
public class FencedDataSourcePostProcessor implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(FencedDataSourcePostProcessor.class);

    private final Function<RefusalListener, FencingConfig> configuration;
    private final Supplier<Set<String>> excludedBeans;
    private ConfigurableListableBeanFactory beanFactory;
    private volatile FencingConfig config;
    /** Each physical DataSource's one fence, however many paths lead to it. */
    private final Map<DataSource, FencedDataSource> fences = Collections.synchronizedMap(new IdentityHashMap<>());

    /**
     * @param configuration the fence's configuration, made once at the first DataSource, given the listener that
     *        tells every {@link RefusalListener} bean (pass it to {@link FencingConfig.Builder#onRefusal})
     * @param excludedBeans the names of DataSource beans to leave unfenced, asked once at the first DataSource
     */
    public FencedDataSourcePostProcessor(Function<RefusalListener, FencingConfig> configuration,
                                         Supplier<Set<String>> excludedBeans) {
        if (configuration == null || excludedBeans == null) {
            throw new IllegalArgumentException("configuration and excludedBeans must not be null");
        }
        this.configuration = configuration;
        this.excludedBeans = SingletonSupplier.of(() -> Set.copyOf(excludedBeans.get()));
    }

    /** Fences every DataSource bean with the configuration {@code configuration} makes. */
    public FencedDataSourcePostProcessor(Function<RefusalListener, FencingConfig> configuration) {
        this(configuration, Set::of);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (beanFactory instanceof ConfigurableListableBeanFactory listable) {
            this.beanFactory = listable;
        }
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof DataSource dataSource)) {
            return bean;
        }
        Set<String> excluded = excludedBeans.get();
        if (excluded.contains(beanName)) {
            return bean;
        }
        DataSource fenced = fenceOnce(dataSource, "bean '" + beanName + "'", excludedInstances(excluded));
        if (fenced instanceof FencedDataSource fence && fence.target() == dataSource
                && injectedByItsClass(beanName, dataSource)) {
            try {
                DataSource proxy = ClassPreservingFence.proxy(fence);
                log.debug("fenceguard: bean '{}' keeps its class {}", beanName, dataSource.getClass().getName());
                return proxy;
            } catch (RuntimeException e) {
                log.warn("fenceguard: bean '{}' becomes a FencedDataSource, no {} any more: no proxy of its class "
                        + "could be made ({})", beanName, dataSource.getClass().getName(), e.toString());
            }
        }
        return fenced;
    }

    /**
     * Whether the bean is declared by a class that a {@link FencedDataSource} is not, beside other
     * DataSource beans (which may be given it by that class), and a subclass proxy of it can be made.
     * The application's only DataSource bean is replaced by a FencedDataSource whatever its declared
     * type: nothing wraps it, and the application and Boot use it as a DataSource.
     */
    private boolean injectedByItsClass(String beanName, DataSource bean) {
        if (beanFactory == null || !beanFactory.containsBeanDefinition(beanName)) {
            return false;
        }
        Class<?> declared = beanFactory.getMergedBeanDefinition(beanName).getResolvableType().resolve();
        if (declared == null || declared.isAssignableFrom(FencedDataSource.class)) {
            return false;
        }
        return beanFactory.getBeanNamesForType(DataSource.class, true, false).length > 1
                && ClassPreservingFence.canProxy(bean.getClass());
    }

    /** {@code dataSource} or what replaces it: every path from it to a physical DataSource fenced once. */
    private DataSource fenceOnce(DataSource dataSource, String where, Set<Object> excluded) {
        if (dataSource instanceof FencedDataSource || excluded.contains(dataSource)) {
            return dataSource;
        }
        if (dataSource instanceof DelegatingDataSource delegating) {
            fenceTargetOf(delegating, where, excluded);
            return delegating;
        }
        if (dataSource instanceof AbstractRoutingDataSource routing) {
            fenceTargetsOf(routing, where, excluded);
            return routing;
        }
        if (FencedDataSource.isFenced(dataSource)) {
            return dataSource; // a pool or proxy of another kind over a fenced DataSource
        }
        return fences.computeIfAbsent(dataSource, physical -> {
            FencedDataSource fenced = FencedDataSource.wrap(physical, config());
            log.info("fenceguard: fencing {} ({}) for tables {}", where, physical.getClass().getSimpleName(),
                    fenced.config().tables());
            return fenced;
        });
    }

    private void fenceTargetOf(DelegatingDataSource delegating, String where, Set<Object> excluded) {
        DataSource target = delegating.getTargetDataSource();
        if (target == null) {
            log.warn("fenceguard: {} ({}) has no target DataSource yet, so it is not fenced", where,
                    delegating.getClass().getSimpleName());
        } else {
            DataSource fenced = fenceOnce(target, "the target of " + where, excluded);
            if (fenced != target) {
                delegating.setTargetDataSource(fenced);
            }
        }
        if (delegating instanceof LazyConnectionDataSourceProxy lazy) {
            // Its read-only DataSource (set with setReadOnlyDataSource) has no getter.
            DirectFieldAccessor fields = new DirectFieldAccessor(lazy);
            if (fields.isReadableProperty("readOnlyDataSource")
                    && fields.getPropertyValue("readOnlyDataSource") instanceof DataSource readOnly) {
                DataSource fenced = fenceOnce(readOnly, "the read-only target of " + where, excluded);
                if (fenced != readOnly) {
                    lazy.setReadOnlyDataSource(fenced);
                }
            }
        }
    }

    private void fenceTargetsOf(AbstractRoutingDataSource routing, String where, Set<Object> excluded) {
        Map<Object, DataSource> resolved;
        try {
            resolved = routing.getResolvedDataSources();
        } catch (IllegalStateException notInitialized) {
            log.warn("fenceguard: {} ({}) has not resolved its targets, so they are not fenced", where,
                    routing.getClass().getSimpleName());
            return;
        }
        Map<Object, Object> targets = new LinkedHashMap<>();
        boolean changed = false;
        for (Map.Entry<Object, DataSource> entry : resolved.entrySet()) {
            DataSource fenced = fenceOnce(entry.getValue(), "target '" + entry.getKey() + "' of " + where, excluded);
            changed |= fenced != entry.getValue();
            targets.put(entry.getKey(), fenced);
        }
        DataSource defaultTarget = routing.getResolvedDefaultDataSource();
        DataSource fencedDefault = defaultTarget == null ? null
                : fenceOnce(defaultTarget, "the default target of " + where, excluded);
        if (changed || fencedDefault != defaultTarget) {
            routing.setTargetDataSources(targets);
            if (fencedDefault != null) {
                routing.setDefaultTargetDataSource(fencedDefault);
            }
            routing.initialize();
        }
    }

    /** The excluded beans that exist by now, by identity: only those can be targets of the DataSource at hand. */
    private Set<Object> excludedInstances(Set<String> excluded) {
        if (beanFactory == null || excluded.isEmpty()) {
            return Set.of();
        }
        Set<Object> instances = Collections.newSetFromMap(new IdentityHashMap<>());
        for (String name : excluded) {
            if (beanFactory.containsSingleton(name)) {
                instances.add(beanFactory.getSingleton(name));
            }
        }
        return instances;
    }

    /**
     * Checks every fence against its database's catalog once all singletons exist (so after the
     * application's migrations and schema scripts ran): a configuration that does not fit stops the start-up
     * with the one line that names the fix, rather than failing the first write
     * ({@link FencingConfig#verifyCatalog()} false turns the check off).
     */
    @Override
    public void afterSingletonsInstantiated() {
        if (config == null || !config.verifyCatalog()) {
            return;
        }
        List<FencedDataSource> all;
        synchronized (fences) {
            all = List.copyOf(fences.values());
        }
        for (FencedDataSource fence : all) {
            try {
                fence.verify();
            } catch (SQLException e) {
                throw new FencedTablesConfigurationException(e);
            }
        }
    }

    private FencingConfig config() {
        FencingConfig current = config;
        if (current == null) {
            // The listener beans are looked up at each refusal: this post-processor exists before them.
            ConfigurableListableBeanFactory beans = beanFactory;
            current = configuration.apply(refusal -> {
                if (beans != null) {
                    RefusalListener.all(beans.getBeanProvider(RefusalListener.class).orderedStream().toList())
                            .refused(refusal);
                }
            });
            config = current;
        }
        return current;
    }
}
