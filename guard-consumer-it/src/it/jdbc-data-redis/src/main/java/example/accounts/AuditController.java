package example.accounts;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/** The downstream service: remembers the token header each account's last audit call came with. */
@RestController
public class AuditController {

    private final Map<String, String> lastToken = new ConcurrentHashMap<>();

    @PostMapping("/audit/{id}")
    public void audit(@PathVariable String id,
                      @RequestHeader(name = "Fencing-Token", required = false) String token) {
        lastToken.put(id, token == null ? "(none)" : token);
    }

    String lastToken(String id) {
        return lastToken.get(id);
    }
}
