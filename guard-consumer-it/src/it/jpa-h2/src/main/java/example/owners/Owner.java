package example.owners;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** An owner of the clinic. Its token column is the guard's business and is not mapped. */
@Entity
@Table(name = "owners")
public class Owner {

    @Id
    private String id;
    private String name;
    private long visits;
    @Version
    private Long version;

    protected Owner() {
    }

    public Owner(String id, String name) {
        this.id = id;
        this.name = name;
    }

    public String getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public long getVisits() {
        return visits;
    }

    public void visit() {
        visits++;
    }
}
