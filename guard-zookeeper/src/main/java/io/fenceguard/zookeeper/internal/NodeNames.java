package io.fenceguard.zookeeper.internal;

import io.fenceguard.core.ResourceName;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;

/**
 * How resources and lease nodes are named in ZooKeeper.
 *
 * <p>A resource name may hold {@code : / @ #} and {@code .}; a ZooKeeper node name may not hold
 * {@code /} and may not be {@code .} or {@code ..}. So every byte outside {@code [A-Za-z0-9_-]} is
 * written as {@code %XX} (upper-case hex) and {@code %} itself is never left as is: the encoding is
 * one-to-one, so two resources never share a node, and the result is one valid node name. A resource
 * of at most {@link ResourceName#MAX_LENGTH} characters gives at most three times that many.
 */
public final class NodeNames {

    /** What the exclusive lease nodes' names end with before ZooKeeper's ten-digit sequence number. */
    public static final String LEASE_PREFIX = "lease-";
    /** The same for shared (read) lease nodes; both kinds share the parent's one sequence. */
    public static final String READ_PREFIX = "read-";
    private static final int SEQUENCE_DIGITS = 10;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** Lease nodes in the order ZooKeeper numbered them, whatever the protection prefix before. */
    public static final Comparator<String> BY_SEQUENCE = Comparator.comparing(NodeNames::sequence);

    private NodeNames() {
    }

    /** The single node name of a resource. */
    public static String encode(ResourceName resource) {
        byte[] bytes = resource.value().getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(bytes.length * 3);
        for (byte b : bytes) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
                out.append(c);
            } else {
                out.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
            }
        }
        return out.toString();
    }

    /** Whether a child of a resource's node is a lease node (and not something else put there). */
    public static boolean isLease(String child) {
        return endsWith(child, LEASE_PREFIX) || endsWith(child, READ_PREFIX);
    }

    /** Whether a lease node is a shared one. */
    public static boolean isRead(String child) {
        return endsWith(child, READ_PREFIX);
    }

    private static boolean endsWith(String child, String prefix) {
        int at = child.length() - SEQUENCE_DIGITS;
        return at >= prefix.length() && child.startsWith(prefix, at - prefix.length())
                && child.substring(at).chars().allMatch(Character::isDigit);
    }

    /** ZooKeeper's sequence number: the last ten digits, zero-padded so that they sort as text. */
    public static String sequence(String child) {
        return child.substring(child.length() - SEQUENCE_DIGITS);
    }
}
