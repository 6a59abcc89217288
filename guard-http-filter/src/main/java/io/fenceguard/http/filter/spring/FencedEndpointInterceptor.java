package io.fenceguard.http.filter.spring;

import io.fenceguard.admission.FencedEndpoint;
import io.fenceguard.admission.Problem;
import io.fenceguard.http.filter.FencingFilter;
import io.fenceguard.http.filter.internal.ProblemResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * The second check behind the filter: a {@link FencedEndpoint} handler runs only for a request the
 * {@link FencingFilter} admitted. Should the filter not have matched the request (a path spelled in a
 * way the route did not foresee, a filter registration replaced by mistake), the handler is refused
 * (428, {@code urn:fenceguard:not-admitted}) rather than run without a token.
 */
public final class FencedEndpointInterceptor implements HandlerInterceptor {

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
            throws Exception {
        if (!(handler instanceof HandlerMethod method) || !method.hasMethodAnnotation(FencedEndpoint.class)
                || request.getAttribute(FencingFilter.ADMISSION_ATTRIBUTE) != null) {
            return true;
        }
        ProblemResponse.send(response, Problem.notAdmitted(), request.getRequestURI());
        return false;
    }
}
