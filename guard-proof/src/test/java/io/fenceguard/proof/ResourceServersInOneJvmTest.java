package io.fenceguard.proof;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Resource servers of runs at the same time in one JVM (ProofIT's fenced and unfenced runs) start side by side:
 * each registers its Tomcat under a name of its own. Without fencing a server touches its DataSource only when
 * asked, so none is given here.
 */
class ResourceServersInOneJvmTest {

    @Test
    void resourceServersStartingTogetherAllStart() throws Exception {
        int together = 6;
        ExecutorService pool = Executors.newFixedThreadPool(together);
        List<ResourceServer> started = new ArrayList<>();
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<ResourceServer>> servers = new ArrayList<>();
            for (int i = 0; i < together; i++) {
                servers.add(pool.submit(() -> {
                    go.await();
                    return ResourceServer.start(null, false);
                }));
            }
            go.countDown();
            for (Future<ResourceServer> server : servers) {
                started.add(server.get(60, TimeUnit.SECONDS));
            }
            assertThat(started).extracting(ResourceServer::port).doesNotHaveDuplicates().allMatch(port -> port > 0);
        } finally {
            pool.shutdownNow();
            for (ResourceServer server : started) {
                server.close();
            }
        }
    }
}
