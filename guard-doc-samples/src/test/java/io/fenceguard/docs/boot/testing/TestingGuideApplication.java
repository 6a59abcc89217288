package io.fenceguard.docs.boot.testing;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.PropertySource;

/** The application of the testing guide's sample: an accounts table, fenced. */
@SpringBootApplication
@PropertySource("classpath:boot-testing/accounts.properties")
class TestingGuideApplication {
}
