package io.fenceguard.zookeeper;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.client.FourLetterWordMain;

/** The server's watches by session, read with ZooKeeper's {@code wchc} command. */
final class WatchTable {

    private WatchTable() {
    }

    /** Session id to the paths it watches. */
    static Map<Long, Set<String>> bySession(TestingServer server) throws Exception {
        String text = FourLetterWordMain.send4LetterWord("127.0.0.1", server.getPort(), "wchc");
        Map<Long, Set<String>> table = new HashMap<>();
        Set<String> current = null;
        for (String line : text.split("\n")) {
            if (line.startsWith("0x")) {
                current = table.computeIfAbsent(Long.parseUnsignedLong(line.substring(2).trim(), 16), k -> new HashSet<>());
            } else if (!line.isBlank() && current != null) {
                current.add(line.trim());
            }
        }
        return table;
    }

    /** The paths a session watches below {@code prefix}. */
    static Set<String> watchedBelow(TestingServer server, long session, String prefix) throws Exception {
        Set<String> below = new HashSet<>();
        for (String path : bySession(server).getOrDefault(session, Set.of())) {
            if (path.startsWith(prefix)) {
                below.add(path);
            }
        }
        return below;
    }
}
