package io.fenceguard.core;

import java.util.Objects;
import java.util.Optional;

/**
 * A write a fenced resource refused, as every layer reports it to a {@link RefusalListener}: where it was refused
 * ({@link Layer}, and the statement, request or message source), why (the layer's reason code), the fence it
 * carried when one was read, the high-water mark that outranked it when known, and the refusal as the layer
 * has it ({@link #original()}), so that a listener of one layer loses nothing that layer knows.
 */
public final class Refusal {

    /** The layer that refused; {@link #tag()} is its name in meters and in the actuator endpoint. */
    public enum Layer {
        /** A statement refused by the JDBC guard or by the database; the original is the SQLException thrown. */
        JDBC,
        /** A request refused by a fencing filter (servlet or WebFlux); the original is the problem answered. */
        HTTP,
        /** A message refused by message admission; the original is the MessageRefusedException. */
        MESSAGING;

        /** {@code jdbc}, {@code http} or {@code messaging}. */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Layer layer;
    private final String reason;
    private final ResourceName resource;
    private final String where;
    private final FencingToken token;
    private final FencingToken highWater;
    private final String detail;
    private final Object original;

    private Refusal(Builder b) {
        this.layer = b.layer;
        this.reason = b.reason;
        this.resource = b.resource;
        this.where = b.where;
        this.token = b.token;
        this.highWater = b.highWater;
        this.detail = b.detail;
        this.original = b.original;
    }

    /**
     * @param reason the layer's fixed vocabulary, low-cardinality: for statements {@code stale} or the
     *        FencingRefusedException reason; for requests the problem type after {@code urn:fenceguard:}; for
     *        messages the MessageRefusedException reason
     */
    public static Builder builder(Layer layer, String reason) {
        return new Builder(Objects.requireNonNull(layer, "layer"), Objects.requireNonNull(reason, "reason"));
    }

    public Layer layer() {
        return layer;
    }

    /** The layer's reason code, lower case. */
    public String reason() {
        return reason;
    }

    /** The resource the write was for, when the refusal got as far as reading it. */
    public Optional<ResourceName> resource() {
        return Optional.ofNullable(resource);
    }

    /** The statement's SQL, the request's method and path, or the message's source; empty when not known. */
    public Optional<String> where() {
        return Optional.ofNullable(where);
    }

    /** The token the write carried, when one was read. */
    public Optional<FencingToken> token() {
        return Optional.ofNullable(token);
    }

    /** The high-water mark that outranked the token, when the resource said. */
    public Optional<FencingToken> highWater() {
        return Optional.ofNullable(highWater);
    }

    /** The refusal's message for people, as the caller got it. */
    public String detail() {
        return detail;
    }

    /**
     * The refusal as its layer has it: the {@code SQLException} thrown to the caller, the HTTP problem sent back
     * ({@code io.fenceguard.admission.Problem}), or the {@code MessageRefusedException}.
     */
    public Object original() {
        return original;
    }

    /** {@link #original()} when it is a {@code type}. */
    public <T> Optional<T> original(Class<T> type) {
        return type.isInstance(original) ? Optional.of(type.cast(original)) : Optional.empty();
    }

    @Override
    public String toString() {
        return "Refusal[" + layer.tag() + " " + reason + (resource == null ? "" : " " + resource.value())
                + (where == null ? "" : " at " + where) + "]";
    }

    public static final class Builder {

        private final Layer layer;
        private final String reason;
        private ResourceName resource;
        private String where;
        private FencingToken token;
        private FencingToken highWater;
        private String detail = "";
        private Object original;

        private Builder(Layer layer, String reason) {
            this.layer = layer;
            this.reason = reason;
        }

        public Builder resource(ResourceName resource) {
            this.resource = resource;
            return this;
        }

        /** The resource and the token of the fence the write carried. */
        public Builder fence(Fence fence) {
            if (fence != null) {
                this.resource = fence.resource();
                this.token = fence.token();
            }
            return this;
        }

        public Builder where(String where) {
            this.where = where;
            return this;
        }

        public Builder token(FencingToken token) {
            this.token = token;
            return this;
        }

        public Builder highWater(FencingToken highWater) {
            this.highWater = highWater;
            return this;
        }

        public Builder detail(String detail) {
            this.detail = detail == null ? "" : detail;
            return this;
        }

        public Builder original(Object original) {
            this.original = original;
            return this;
        }

        public Refusal build() {
            return new Refusal(this);
        }
    }
}
