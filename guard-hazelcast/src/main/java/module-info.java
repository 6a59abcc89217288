/** Leases on Hazelcast's CP subsystem ({@code FencedLock}). */
module io.fenceguard.hazelcast {
    requires transitive io.fenceguard.core;
    requires transitive com.hazelcast.core;
    requires org.slf4j;

    requires static io.fenceguard.admission;

    exports io.fenceguard.hazelcast;
}
