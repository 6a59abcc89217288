package example.accounts;

import io.fenceguard.admission.FencedEndpoint;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The downstream service, fenced: the servlet filter admits only a current token for the account; the handler
 * remembers the header each account's last admitted call came with.
 */
@RestController
public class AuditController {

    private final Map<String, String> lastToken = new ConcurrentHashMap<>();

    @PostMapping("/audit/{id}")
    @FencedEndpoint(resource = "account:{id}")
    public void audit(@PathVariable String id, @RequestHeader("Fencing-Token") String token) {
        lastToken.put(id, token);
    }

    String lastToken(String id) {
        return lastToken.get(id);
    }
}
