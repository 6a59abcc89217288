package io.fenceguard.spring.boot.autoconfigure.http;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a {@link HttpFencingConfigurationException}, however deep, into Boot's description and action. */
public class HttpFencingFailureAnalyzer extends AbstractFailureAnalyzer<HttpFencingConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, HttpFencingConfigurationException cause) {
        return new FailureAnalysis(cause.description(), cause.action(), cause);
    }
}
