package io.fenceguard.autoconfigure.http;

import io.fenceguard.http.FenceHeader;
import io.fenceguard.http.JdbcHighWaterStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of fenceguard's HTTP layer ({@code guard.http.*}). */
@ConfigurationProperties("guard.http")
public class GuardHttpProperties {

    /** Name of the fencing header. */
    private String headerName = FenceHeader.DEFAULT_NAME;

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

        /** Refuse unsigned fencing headers. When true, at least one key must be configured. */
        private boolean required = true;

        /** HMAC-SHA256 keys by key id, base64 (standard or URL alphabet), at least 32 bytes each. */
        private Map<String, String> keys = new LinkedHashMap<>();

        /** Id of the key that signs outgoing headers; every listed key is accepted inbound. */
        private String activeKey;

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

        public String getActiveKey() {
            return activeKey;
        }

        public void setActiveKey(String activeKey) {
            this.activeKey = activeKey;
        }
    }

    public static class Store {

        /** Where the high-water marks live: memory (one instance only), jdbc or redis. */
        private StoreType type = StoreType.MEMORY;

        /** Table of the JDBC store, optionally schema-qualified. */
        private String table = JdbcHighWaterStore.DEFAULT_TABLE;

        /** Key prefix of the Redis store. */
        private String keyPrefix = "fg:http:";

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

    /** Kinds of high-water store. */
    public enum StoreType { MEMORY, JDBC, REDIS }

    public static class Server {

        /** Register the fencing filter in a servlet web application. */
        private boolean enabled = true;

        /** Order of the fencing filter; after security filters by default. */
        private int filterOrder = 0;

        /** Guarded routes besides the @FencedEndpoint controller methods. */
        private List<Route> routes = new ArrayList<>();

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
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

        /** Path pattern: literals, {name}, * and a final **. */
        private String path;

        /** HTTP methods guarded; empty for all. */
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

        /** Base URLs that may receive the current lease's token; none by default. */
        private List<String> destinations = new ArrayList<>();

        public List<String> getDestinations() {
            return destinations;
        }

        public void setDestinations(List<String> destinations) {
            this.destinations = destinations;
        }
    }
}
