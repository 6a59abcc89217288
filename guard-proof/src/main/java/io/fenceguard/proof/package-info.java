/**
 * A fault-injection harness in the manner of Jepsen: clients in threads of this JVM and in two worker
 * JVMs run read-modify-write counters, an append-only ledger with per-account totals, and HTTP writes
 * through fenceguard-http-filter, against a real PostgreSQL (and MariaDB when {@code GUARD_TEST_MARIADB_URL}
 * is set) and real Redis servers that the harness starts on loopback ports. A seeded {@link
 * io.fenceguard.proof.Nemesis} pauses holders past their lease (SIGSTOP of a worker JVM, or a
 * thread whose renewals are held back), flushes Redis, kills and restarts it empty, fails the Sentinel
 * group over, delays one client process's Redis answers past a lease or drops connections (each process
 * reaches Redis through a delay proxy of its own), and holds HTTP requests past the client's timeout or
 * loses the answers to HTTP writes (the client retries). Rows of the matrix lock on a three-member etcd
 * cluster instead ({@code etcd} on the PATH; {@link io.fenceguard.proof.EtcdServers}): the nemesis kills the
 * leader with SIGKILL and starts it again, cuts one client process off from every member (a delay proxy per
 * process and member holds its traffic both ways for longer than a lease), or pauses holders. The {@link
 * io.fenceguard.proof.HistoryChecker} reads every operation and the final database state and
 * counts lost acknowledged writes, stale writes admitted, duplicate tokens and wrong ledger totals.
 *
 * <p>The same run without fencing (Redisson's {@code RFencedLock} or etcd's lock service, raw DataSource, no
 * filter, same seed) must show anomalies, or the harness would not see what fencing prevents.
 *
 * <ul>
 *   <li>Short, in every build ({@code ProofIT}, 50 s with fencing, 40 s without, 4 clients):
 *       {@code ./mvnw -B -pl guard-proof -am verify} (add {@code -Dtest=none
 *       -Dsurefire.failIfNoSpecifiedTests=false} to skip the other modules' unit tests); {@code EtcdProofIT},
 *       15 s with fencing on etcd under leader kill, partition and pause, skipped without an etcd binary</li>
 *   <li>Long (10 minutes each, 8 clients):
 *       {@code ./mvnw -B -pl guard-proof -am -Pproof -DskipTests verify -Dproof.duration=10m -Dproof.clients=8}
 *       (also {@code -Dproof.seed}, {@code -Dproof.off-duration}, {@code -Dproof.lease}, {@code -Dproof.out})</li>
 * </ul>
 * Outputs in {@code guard-proof/target/proof/}: the table on stdout, {@code result.json},
 * {@code proof-fencing-on.png}, {@code proof-fencing-off.png}, and each process's history as JSON lines.
 */
package io.fenceguard.proof;
