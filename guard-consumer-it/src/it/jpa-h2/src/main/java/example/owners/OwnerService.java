package example.owners;

import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.annotation.Fenced;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The owners' writes, each in a transaction under the lease on its owner; each returns the token it wrote under. */
@Service
public class OwnerService {

    private final OwnerRepository owners;

    public OwnerService(OwnerRepository owners) {
        this.owners = owners;
    }

    @Fenced("'owner:' + #owner.id")
    @Transactional
    public long register(Owner owner) {
        owners.saveAndFlush(owner);
        return token();
    }

    @Fenced("'owner:' + #id")
    @Transactional
    public long visit(String id) {
        owners.findById(id).orElseThrow().visit();
        owners.flush();
        return token();
    }

    private static long token() {
        return LeaseContext.requireValid().token().value();
    }
}
