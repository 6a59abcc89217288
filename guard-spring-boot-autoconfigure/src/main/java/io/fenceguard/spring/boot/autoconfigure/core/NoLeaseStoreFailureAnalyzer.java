package io.fenceguard.spring.boot.autoconfigure.core;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns {@link NoLeaseStoreException} into Boot's startup report: the problem and the one thing to add. */
class NoLeaseStoreFailureAnalyzer extends AbstractFailureAnalyzer<NoLeaseStoreException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, NoLeaseStoreException cause) {
        String action = cause.action();
        return new FailureAnalysis(cause.problem() + ".",
                Character.toUpperCase(action.charAt(0)) + action.substring(1) + ".", cause);
    }
}
