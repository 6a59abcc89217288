package io.fenceguard.spring.boot.autoconfigure.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/** Settings of fenceguard's HTTP fencing ({@code fenceguard.http.*}). */
@ConfigurationProperties(FenceguardHttpProperties.PREFIX)
public class FenceguardHttpProperties {

    public static final String PREFIX = "fenceguard.http";

    // Literal defaults (equal to the library's constants, as a test checks): the metadata needs them.

    /** Name of the HTTP header that carries the fence (resource and token). */
    private String headerName = "Fencing-Token";

    private final Signing signing = new Signing();
    private final Store store = new Store();
    private final Server server = new Server();
    private final Client client = new Client();

    public String getHeaderName() {
        return headerName;
    }

    public void setHeaderName(String headerName) {
        this.headerName = headerName;
    }

    public Signing getSigning() {
        return signing;
    }

    public Store getStore() {
        return store;
    }

    public Server getServer() {
        return server;
    }

    public Client getClient() {
        return client;
    }

    public static class Signing {

        /**
         * Whether inbound fencing headers must be signed. Without keys, true stops a server with fenced
         * endpoints from starting (with one line that says what to configure) and false admits unsigned
         * headers, for trusted networks only. With keys, false admits unsigned headers next to verified
         * signed ones, while callers move to signing. Calls out are signed whenever there is a key.
         */
        private boolean required = true;

        /**
         * HMAC-SHA256 keys by key id (1 to 32 of A-Z a-z 0-9 . _ -), in base64 or base64url, at least 32
         * bytes each (openssl rand -base64 32). Every listed key is accepted inbound. None: outgoing
         * headers are unsigned.
         */
        private Map<String, String> keys = new LinkedHashMap<>();

        /** Id of the key that signs outgoing headers. Unset: the only key, when there is exactly one. */
        private String activeKey;

        /**
         * What a signature covers, with keys. request: RFC 9421 signatures over method, target URI, the
         * fencing header and the body's Content-Digest, with a lifetime and a nonce admitted once; calls
         * out are signed so, and a server with fenced endpoints refuses compact-signed and unsigned
         * requests (unless accept-compact, or required=false). compact: the fencing header alone (k and s
         * fields), weaker: a captured header is usable for any request to the resource while its token is
         * current (logged at startup). A request-mode server does not admit compact-signed calls, nor a
         * compact-mode server request-signed ones: move a fleet with accept-compact.
         */
        private SignatureMode mode = SignatureMode.REQUEST;
        private boolean modeConfigured;

        /**
         * With mode=request, whether a server also admits compact-signed headers: for the move of a fleet
         * from compact (servers first with this set, then the callers, then unset it).
         */
        private boolean acceptCompact = false;

        /** Largest request body a server reads to check a request signature's Content-Digest; longer ones get 413. */
        private DataSize maxSignedBody = DataSize.ofMegabytes(1);

        /**
         * Public demonstration keys (an example's, published with it), in the form of keys. Used only
         * while keys is empty, with a warning at startup; set next to keys, startup fails, so that a
         * published key is never accepted next to the operator's own.
         */
        private Map<String, String> demoKeys = new LinkedHashMap<>();

        public boolean isRequired() {
            return required;
        }

        public void setRequired(boolean required) {
            this.required = required;
        }

        public Map<String, String> getKeys() {
            return keys;
        }

        public void setKeys(Map<String, String> keys) {
            this.keys = keys;
        }

        public SignatureMode getMode() {
            return mode;
        }

        public void setMode(SignatureMode mode) {
            this.mode = mode;
            this.modeConfigured = true;
        }

        /** Whether the mode was configured, rather than being the default. */
        public boolean modeConfigured() {
            return modeConfigured;
        }

        public boolean isAcceptCompact() {
            return acceptCompact;
        }

        public void setAcceptCompact(boolean acceptCompact) {
            this.acceptCompact = acceptCompact;
        }

        public DataSize getMaxSignedBody() {
            return maxSignedBody;
        }

        public void setMaxSignedBody(DataSize maxSignedBody) {
            this.maxSignedBody = maxSignedBody;
        }

        public Map<String, String> getDemoKeys() {
            return demoKeys;
        }

        public void setDemoKeys(Map<String, String> demoKeys) {
            this.demoKeys = demoKeys;
        }

        public String getActiveKey() {
            return activeKey;
        }

        public void setActiveKey(String activeKey) {
            this.activeKey = activeKey;
        }
    }

    public static class Store {

        /**
         * Where the fencing filter keeps the highest token admitted per resource: memory (one instance
         * only, forgotten on restart), jdbc (the DataSource bean) or redis (the RedissonClient bean,
         * with fenceguard-redis on the class path).
         */
        private StoreType type = StoreType.MEMORY;

        /** Table of the JDBC store, optionally schema-qualified; created by the fenceguard-db migrations. */
        private String table = "fenceguard_http_high_water";

        /** Key prefix of the Redis store. */
        private String keyPrefix = "fg:http:";

        /**
         * Whether the JDBC store's admission joins the handler's transaction: each fenced request runs in
         * a transaction of the PlatformTransactionManager bean (on the DataSource bean), the handler's
         * transactional writes join it, and admission, idempotency record and writes commit together. A
         * handler that fails (exception or status 400 and above) rolls its admission back.
         */
        private boolean joinHandlerTransaction = false;

        /**
         * How long the JDBC and Redis stores keep the first response to an Idempotency-Key: a retry within it is
         * answered from that response, one after it runs again. The store holds about this long's keyed requests;
         * at least one minute.
         */
        private Duration idempotencyRetention = Duration.ofDays(1);

        public Duration getIdempotencyRetention() {
            return idempotencyRetention;
        }

        public void setIdempotencyRetention(Duration idempotencyRetention) {
            this.idempotencyRetention = idempotencyRetention;
        }

        public boolean isJoinHandlerTransaction() {
            return joinHandlerTransaction;
        }

        public void setJoinHandlerTransaction(boolean joinHandlerTransaction) {
            this.joinHandlerTransaction = joinHandlerTransaction;
        }

        public StoreType getType() {
            return type;
        }

        public void setType(StoreType type) {
            this.type = type;
        }

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = table;
        }

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }
    }

    /** What a fencing signature covers. */
    public enum SignatureMode {
        /** The fencing header alone: usable with any request to the resource while the token is current. */
        COMPACT,
        /** The whole request (RFC 9421 with Content-Digest), once: the default. */
        REQUEST
    }

    /** Kinds of high-water store. */
    public enum StoreType {
        /** In this process: one instance only, forgotten on restart. */
        MEMORY,
        /** A table reached through the DataSource bean. */
        JDBC,
        /** Redis, through the RedissonClient bean. */
        REDIS
    }

    public static class Server {

        /**
         * Whether to register the fencing filter in a servlet web application. It is registered only
         * when there are fenced endpoints: configured routes or @FencedEndpoint handler methods.
         */
        private boolean enabled = true;

        /** Order of the fencing filter among the servlet filters; 0 runs after Spring Security's. */
        private int filterOrder = 0;

        /**
         * How far the lock store's clock may be ahead of this one. Tokens above this server's time in µs
         * plus this skew cannot have been minted (clock-floor tokens) and are refused (403); after the
         * Redis store lost its data it refuses tokens up to that bound. Applies to clock-floor tokens only: when
         * the Redis provider's tokens rest on a durable epoch (fenceguard.redis.token-epoch), the bound is the
         * epoch source's highest epoch instead. A TokenBound bean replaces the rule.
         */
        private Duration maxTokenSkew = Duration.ofSeconds(5);

        /**
         * Whether handlers of one resource start in token order on this instance (servlet and WebFlux):
         * a handler whose request was admitted with an older token is refused (409) while a newer
         * token's handler is in flight here or once one has succeeded, even though its admission came
         * first. A handler that failed (an exception, or a status of 400 or more) holds none back.
         */
        private boolean handlerOrder = false;

        /**
         * Whether a fenced request with an Idempotency-Key header is answered from the first response to
         * that key (same resource and request) instead of running again; kept in the high-water store.
         */
        private boolean idempotency = false;

        public boolean isIdempotency() {
            return idempotency;
        }

        public void setIdempotency(boolean idempotency) {
            this.idempotency = idempotency;
        }

        /** Fenced routes besides the @FencedEndpoint handler methods. */
        private List<Route> routes = new ArrayList<>();

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isHandlerOrder() {
            return handlerOrder;
        }

        public void setHandlerOrder(boolean handlerOrder) {
            this.handlerOrder = handlerOrder;
        }

        public Duration getMaxTokenSkew() {
            return maxTokenSkew;
        }

        public void setMaxTokenSkew(Duration maxTokenSkew) {
            this.maxTokenSkew = maxTokenSkew;
        }

        public int getFilterOrder() {
            return filterOrder;
        }

        public void setFilterOrder(int filterOrder) {
            this.filterOrder = filterOrder;
        }

        public List<Route> getRoutes() {
            return routes;
        }

        public void setRoutes(List<Route> routes) {
            this.routes = routes;
        }
    }

    public static class Route {

        /** Path pattern, such as /accounts/{id}/**: literals, {name}, * and a final **. */
        private String path;

        /** HTTP methods fenced; empty for all. */
        private Set<String> methods = new LinkedHashSet<>();

        /** Resource template over the path variables, such as account:{id}; empty for the header's resource. */
        private String resource = "";

        public String getPath() {
            return path;
        }

        public void setPath(String path) {
            this.path = path;
        }

        public Set<String> getMethods() {
            return methods;
        }

        public void setMethods(Set<String> methods) {
            this.methods = methods;
        }

        public String getResource() {
            return resource;
        }

        public void setResource(String resource) {
            this.resource = resource;
        }
    }

    public static class Client {

        /**
         * Whether calls out carry the current lease's fence: through the RestClient.Builder,
         * RestTemplateBuilder and WebClient.Builder that Boot provides, and JavaHttpFencing.
         */
        private boolean enabled = true;

        /**
         * Base URLs that receive the current lease's fence, such as https://ledger.internal or
         * http://localhost:8081/api: matched by scheme, host (localhost, 127.0.0.1 and ::1 are one) and
         * port (80 or 443 when absent), then path prefix. None by default. An entry that cannot be parsed
         * is logged at startup; a call under a lease to any other origin is logged once per origin.
         */
        private List<String> destinations = new ArrayList<>();

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public List<String> getDestinations() {
            return destinations;
        }

        public void setDestinations(List<String> destinations) {
            this.destinations = destinations;
        }
    }
}
