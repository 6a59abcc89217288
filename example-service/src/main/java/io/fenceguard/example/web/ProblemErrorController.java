package io.fenceguard.example.web;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Boot's error path ({@code /error}) as problem details: errors the container forwards there (a
 * servlet's {@code sendError}, a filter's exception) answer {@code application/problem+json} like
 * everything else, instead of Boot's {@code {timestamp, status, error, path}} body.
 */
@RestController
public class ProblemErrorController implements ErrorController {

    @RequestMapping("${server.error.path:/error}")
    public ResponseEntity<String> error(HttpServletRequest request) {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer i && i >= 400 ? i : 500;
        Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        String detail = status >= 500 ? "the request failed; nothing was applied"
                : "the request was refused before it reached a handler";
        return ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(ProblemVocabulary.json(status, detail, uri == null ? null : uri.toString()));
    }
}
