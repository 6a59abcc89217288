package io.fenceguard.spring.boot.test.accounts;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application the tests of this module fence: accounts through JdbcTemplate and JPA, an audit endpoint. */
@SpringBootApplication
public class AccountsApplication {
}
