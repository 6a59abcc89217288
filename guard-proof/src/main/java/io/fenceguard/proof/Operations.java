package io.fenceguard.proof;

import io.fenceguard.admission.Destinations;
import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.filter.FencingFilter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Random;

/**
 * One operation of a client: take the lock, read the value, think, write value + amount absolutely,
 * release. Counters add 1, ledger accounts append an entry and write the new total, registers do
 * the same over HTTP. Each ends as ok, fail (known not applied) or unknown (the commit or the
 * response was lost).
 */
final class Operations {

    private final ClientKit kit;
    private final OutboundFence outbound;
    private final String base;
    /** How long a client waits for an answer: three leases; the HTTP fault row holds requests longer. */
    private final Duration answerTimeout;
    /** A write answered 502 (the network lost the server's answer) is sent this many times at most. */
    static final int PUT_ATTEMPTS = 3;

    Operations(ClientKit kit) {
        this.kit = kit;
        this.base = "http://127.0.0.1:" + kit.topology().httpPort();
        this.answerTimeout = Duration.ofMillis(kit.topology().leaseMillis() * 3);
        this.outbound = OutboundFence.of(Destinations.of(base), SigningKeys.none());
    }

    static String workloadOf(String resource) {
        return resource.startsWith("counter:") ? "counter" : resource.startsWith("account:") ? "ledger" : "http";
    }

    Op run(String client, String opId, String resource, Random random, Pause pause) {
        long start = System.currentTimeMillis();
        String workload = workloadOf(resource);
        String service = kit.topology().lockServiceOf(resource);
        Grant grant;
        try {
            grant = kit.locksFor(resource).acquire(resource);
        } catch (Exception e) {
            interruptIf(e);
            return new Op(opId, client, workload, resource, service, start, System.currentTimeMillis(), null,
                    Op.FAIL, Outcomes.kind(e), null);
        }
        Attempt attempt = new Attempt();
        try (grant; AutoCloseable bound = grant.bind();
             AutoCloseable early = pause != null && pause.beforeRead() ? grant.pause(pause.millis(), pause.pastLocalCheck()) : noop()) {
            long think = 5 + random.nextInt(25);
            Pause late = pause != null && !pause.beforeRead() ? pause : null;
            long amount = workload.equals("ledger") ? 1 + random.nextInt(9) : 1;
            if (workload.equals("http")) {
                http(resource, opId, grant, think, late, amount, attempt);
            } else {
                jdbc(resource, opId, grant, think, late, amount, workload.equals("ledger"), attempt);
            }
            return new Op(opId, client, workload, resource, service, start, System.currentTimeMillis(), grant.token(),
                    Op.OK, null, attempt.written);
        } catch (Exception e) {
            interruptIf(e);
            String outcome = attempt.error != null ? attempt.outcome : attempt.sent ? Op.UNKNOWN : Op.FAIL;
            String kind = attempt.error != null ? attempt.error : Outcomes.kind(e);
            return new Op(opId, client, workload, resource, service, start, System.currentTimeMillis(), grant.token(),
                    outcome, kind, attempt.written);
        }
    }

    private void jdbc(String resource, String opId, Grant grant, long think, Pause late, long amount, boolean ledger,
            Attempt attempt) throws Exception {
        try (Connection c = kit.dataSourceFor(resource).getConnection()) {
            c.setAutoCommit(false);
            try {
                long read = CellWrites.read(c, resource);
                Thread.sleep(think);
                try (AutoCloseable resumed = late != null ? grant.pause(late.millis(), late.pastLocalCheck()) : noop()) {
                    attempt.written = read + amount;
                    CellWrites.write(c, resource, opId, grant.token(), read, read + amount, ledger ? amount : null);
                    attempt.sent = true;
                    c.commit();
                }
            } catch (SQLException | RuntimeException e) {
                if (!attempt.sent) {
                    rollbackQuietly(c);
                }
                throw e;
            }
        }
    }

    private void http(String resource, String opId, Grant grant, long think, Pause late, long amount,
            Attempt attempt) throws Exception {
        String id = resource.substring(resource.indexOf(':') + 1);
        URI cell = URI.create(base + "/registers/" + id);
        HttpResponse<String> got = kit.http().send(request(cell, resource, grant).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (got.statusCode() != 200) {
            attempt.fail(got.body().startsWith("stale-db") ? "stale-db" : got.statusCode() == 409 ? "stale-http"
                    : "http-" + got.statusCode(), Op.FAIL);
            throw new IOException("GET answered " + got.statusCode());
        }
        long read = Long.parseLong(got.body().trim());
        Thread.sleep(think);
        try (AutoCloseable resumed = late != null ? grant.pause(late.millis(), late.pastLocalCheck()) : noop()) {
            attempt.written = read + amount;
            URI put = URI.create(cell + "?value=" + (read + amount) + "&read=" + read + "&op=" + opId);
            attempt.sent = true;
            HttpResponse<String> written;
            for (int sent = 1; ; sent++) {
                // A retry is the same request: same token, same op; with fencing it carries the op as its
                // idempotency key, so the server answers a retry of an applied write from its first answer.
                HttpRequest.Builder request = request(put, resource, grant).PUT(HttpRequest.BodyPublishers.noBody());
                if (grant.fenced()) {
                    request.header(FencingFilter.IDEMPOTENCY_KEY, opId);
                }
                try {
                    written = kit.http().send(request.build(), HttpResponse.BodyHandlers.ofString());
                } catch (HttpTimeoutException e) {
                    attempt.fail("http-timeout", Op.UNKNOWN);
                    throw e;
                }
                if (written.statusCode() != 502 || sent == PUT_ATTEMPTS) {
                    break;
                }
                Thread.sleep(50);
            }
            if (written.statusCode() == 409) {
                attempt.fail(written.body().startsWith("stale-db") ? "stale-db" : "stale-http", Op.FAIL);
                throw new IOException("PUT refused as stale");
            }
            if (written.statusCode() != 200) {
                attempt.fail("http-" + written.statusCode(), Op.UNKNOWN);
                throw new IOException("PUT answered " + written.statusCode());
            }
        }
    }

    /** With fencing, the header comes from fenceguard-http-filter's client side (which checks the lease first). */
    private HttpRequest.Builder request(URI uri, String resource, Grant grant) {
        String header = grant.fenced() ? outbound.headerFor(uri).orElseThrow()
                : FenceHeader.of(Fence.of(ResourceName.of(resource), FencingToken.of(grant.token()))).value();
        return HttpRequest.newBuilder(uri).timeout(answerTimeout).header(outbound.headerName(), header);
    }

    /** What an operation got to before it ended. */
    private static final class Attempt {
        boolean sent;
        Long written;
        String error;
        String outcome;

        void fail(String kind, String how) {
            error = kind;
            outcome = how;
        }
    }

    private static AutoCloseable noop() {
        return () -> { };
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the database rolls back
        }
    }

    private static void interruptIf(Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
    }
}
