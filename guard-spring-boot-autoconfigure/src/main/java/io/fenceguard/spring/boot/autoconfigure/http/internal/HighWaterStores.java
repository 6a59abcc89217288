package io.fenceguard.spring.boot.autoconfigure.http.internal;

import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.redis.RedisHighWaterStore;
import io.fenceguard.redis.RedisScriptClient;
import io.fenceguard.spring.boot.autoconfigure.http.FenceguardHttpProperties;
import io.fenceguard.spring.boot.autoconfigure.http.HttpFencingConfigurationException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.util.ClassUtils;

/**
 * The high-water store chosen by {@code fenceguard.http.store.type}. With
 * {@code fenceguard.http.store.join-handler-transaction} the JDBC store admits through Spring's transaction-aware
 * proxy of the DataSource, so that its admissions join the handler's transaction.
 */
public final class HighWaterStores {

    private static final Logger log = LoggerFactory.getLogger(HighWaterStores.class);
    private static final String TYPE = FenceguardHttpProperties.PREFIX + ".store.type";

    private HighWaterStores() {
    }

    public static HighWaterStore create(FenceguardHttpProperties.Store store, BeanFactory beans, TokenBound bound) {
        return switch (store.getType()) {
            case MEMORY -> {
                log.info("fenceguard: the fencing filter keeps its high-water marks in memory: right for one instance "
                        + "only, forgotten on restart ({}=jdbc or redis to share them)", TYPE);
                yield InMemoryHighWaterStore.create();
            }
            case JDBC -> {
                if (!ClassUtils.isPresent("io.fenceguard.jdbc.admission.JdbcHighWaterStore",
                        HighWaterStores.class.getClassLoader())) {
                    throw new IllegalStateException(TYPE + "=jdbc needs fenceguard-jdbc on the class path");
                }
                yield Jdbc.store(store, beans);
            }
            case REDIS -> {
                ClassLoader loader = HighWaterStores.class.getClassLoader();
                if (!ClassUtils.isPresent("io.fenceguard.redis.RedisHighWaterStore", loader)) {
                    throw new IllegalStateException(TYPE + "=redis needs fenceguard-redis on the class path, and a Redis "
                            + "client (Spring Data Redis, Redisson or Jedis)");
                }
                yield Redis.store(beans, store.getKeyPrefix(), bound, store.getIdempotencyRetention());
            }
        };
    }

    /** Where {@code backend} records idempotency keys: itself when it does (every store here does); else {@code null}. */
    public static IdempotencyStore idempotency(HighWaterStore backend) {
        return backend instanceof IdempotencyStore own ? own : null;
    }

    /** Loaded only for the JDBC store, so that fenceguard-jdbc is needed only then. */
    private static final class Jdbc {
        static HighWaterStore store(FenceguardHttpProperties.Store store, BeanFactory beans) {
            DataSource dataSource = beans.getBeanProvider(DataSource.class).getIfUnique();
            if (dataSource == null) {
                throw new IllegalStateException(TYPE + "=jdbc needs exactly one DataSource bean, or a HighWaterStore "
                        + "bean of your own");
            }
            JdbcHighWaterStore jdbc = JdbcHighWaterStore.of(dataSource, store.getTable())
                    .withIdempotencyRetention(store.getIdempotencyRetention());
            return store.isJoinHandlerTransaction()
                    ? jdbc.joiningTransactions(new TransactionAwareDataSourceProxy(dataSource)) : jdbc;
        }
    }

    /** Loaded only for the Redis store, so that Redisson is needed only then. */
    private static final class Redis {
        static HighWaterStore store(BeanFactory beans, String keyPrefix, TokenBound bound, java.time.Duration retention) {
            // After a loss of its marks the Redis store refuses every token up to its bound: tokens on a durable epoch
            // would be refused until a new epoch is taken, which only a lost counter asks for.
            boolean epochTokens;
            try {
                epochTokens = io.fenceguard.spring.boot.autoconfigure.redis.internal.RedisTokenEpochs.resolve(beans) != null;
            } catch (IllegalStateException e) {
                epochTokens = true; // fenceguard.redis.token-epoch=database without a DataSource: asked for all the same
            }
            if (epochTokens) {
                throw new HttpFencingConfigurationException(TYPE + "=redis keeps a clock floor after a loss of its "
                        + "marks, which would refuse tokens on a durable epoch (fenceguard.redis.token-epoch=database, "
                        + "the default with a DataSource, or a TokenEpochSource bean) from then on.",
                        "Keep the high-water marks in the database: " + TYPE + "=jdbc; or, knowing what the clock "
                                + "floor assumes, set fenceguard.redis.token-epoch=clock.");
            }
            RedisScriptClient client = beans.getBeanProvider(RedisScriptClient.class).getIfUnique();
            if (client == null) {
                throw new IllegalStateException(TYPE + "=redis needs the application's Redis client (a RedisConnectionFactory "
                        + "of Spring Data Redis, a RedissonClient or a Jedis Pool bean), or a HighWaterStore bean of your own");
            }
            return RedisHighWaterStore.of(client, keyPrefix, bound).withIdempotencyRetention(retention);
        }
    }
}
