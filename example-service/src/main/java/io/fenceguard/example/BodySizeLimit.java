package io.fenceguard.example;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/** Refuses request bodies over {@code example.max-body-bytes} (default 16 KiB) with 413 before anything reads them. */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
public class BodySizeLimit extends OncePerRequestFilter {

    private final long maxBytes;

    public BodySizeLimit(@Value("${example.max-body-bytes:16384}") long maxBytes) {
        this.maxBytes = maxBytes;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        long length = request.getContentLengthLong();
        boolean chunked = length < 0 && request.getHeader("Transfer-Encoding") != null;
        if (length > maxBytes || chunked) {
            response.setStatus(HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE);
            response.setContentType("application/problem+json");
            response.getWriter().write("{\"type\":\"urn:fenceguard:body-too-large\",\"title\":\"Body too large\","
                    + "\"status\":413,\"detail\":\"request bodies are limited to " + maxBytes
                    + " bytes and must declare their length\"}");
            return;
        }
        chain.doFilter(request, response);
    }
}
