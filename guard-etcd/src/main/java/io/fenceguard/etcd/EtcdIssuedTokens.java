package io.fenceguard.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.fenceguard.admission.IssuedTokens;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The highest token {@link EtcdLeaseProvider} has minted for a resource, from a linearizable read of the resource's
 * keys (jetcd's default: the leader confirms it before answering, so no lagging member's view). A token is a key's
 * create revision, and the lock goes to the keys in create order: the holder's key is the first now, and every holder
 * before it had a key created earlier. So the answer is the holder's create revision (with shared holders first in
 * the queue: the greatest of those before the first exclusive key). Without keys (nobody holds or waits) the answer
 * is the cluster's revision at the read: every key created before is at most that, every later grant is above it, and
 * no holder is refused meanwhile. So it is never empty while etcd answers. A shared holder that released while an
 * older shared one still holds had a greater revision than the answer; shared leases do not write through fences.
 * For {@code MarkHealing} on the admission side; give it the jetcd client and configuration of the provider.
 */
public final class EtcdIssuedTokens implements IssuedTokens {

    private final KV kv;
    private final EtcdLeaseConfig config;

    private EtcdIssuedTokens(KV kv, EtcdLeaseConfig config) {
        this.kv = kv;
        this.config = config;
    }

    /** The tokens minted by an {@link EtcdLeaseProvider} on {@code client} with {@code config}. */
    public static EtcdIssuedTokens of(Client client, EtcdLeaseConfig config) {
        return new EtcdIssuedTokens(Objects.requireNonNull(client, "client").getKVClient(),
                Objects.requireNonNull(config, "config"));
    }

    /** @throws IllegalStateException when etcd does not answer within the configuration's call timeout */
    @Override
    public Optional<FencingToken> highestIssued(ResourceName resource) {
        ByteSequence dir = ByteSequence.from(EtcdLeaseProvider.directory(config, resource), StandardCharsets.UTF_8);
        // Linearizable (jetcd's default, not serializable): answered through the leader.
        CompletableFuture<GetResponse> read = kv.get(dir, GetOption.builder().isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).build());
        try {
            GetResponse answer = read.get(config.callTimeout().toNanos(), TimeUnit.NANOSECONDS);
            long highest = 0;
            for (KeyValue key : answer.getKvs()) {
                boolean shared = key.getValue().toString(StandardCharsets.UTF_8).startsWith(EtcdLeaseProvider.SHARED);
                if (highest > 0 && !shared) {
                    break; // an exclusive key waits for every key before it
                }
                highest = key.getCreateRevision();
                if (!shared) {
                    break; // an exclusive holder: nobody else holds
                }
            }
            return Optional.of(FencingToken.of(highest > 0 ? highest : answer.getHeader().getRevision()));
        } catch (InterruptedException e) {
            read.cancel(true);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading etcd's revision for '" + resource + "'", e);
        } catch (TimeoutException e) {
            read.cancel(true);
            throw new IllegalStateException("etcd did not tell its revision for '" + resource + "' within "
                    + config.callTimeout(), e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("etcd could not tell its revision for '" + resource + "': " + e.getCause(),
                    e.getCause());
        }
    }

    @Override
    public String toString() {
        return "EtcdIssuedTokens[" + config.keyPrefix() + "]";
    }
}
