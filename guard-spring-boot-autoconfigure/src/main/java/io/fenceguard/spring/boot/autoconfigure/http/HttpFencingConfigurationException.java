package io.fenceguard.spring.boot.autoconfigure.http;

/**
 * A {@code fenceguard.http.*} setting the application cannot start with, with what to do about it;
 * {@link HttpFencingFailureAnalyzer} prints both instead of a stack trace.
 */
public class HttpFencingConfigurationException extends IllegalStateException {

    private final String description;
    private final String action;

    public HttpFencingConfigurationException(String description, String action) {
        this(description, action, null);
    }

    public HttpFencingConfigurationException(String description, String action, Throwable cause) {
        super(description + " " + action, cause);
        this.description = description;
        this.action = action;
    }

    public String description() {
        return description;
    }

    public String action() {
        return action;
    }
}
