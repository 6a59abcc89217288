package io.fenceguard.reactor.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BindMarkersTest {

    @Test
    void translates_markers_outside_literals_comments_and_dollar_quotes() {
        BindMarkers.Translation t = BindMarkers.toJdbc(
                "UPDATE t SET a = $2, b = 'x $1 ''y''', c = E'\\' $1', d = \"q$1\" -- $1\n, e = $$ $1 $$, f = $tag$ $1 $tag$ "
                        + "/* $1 /* $1 */ */ WHERE id = $1 AND a$1 = $10");
        assertThat(t.jdbcSql()).isEqualTo(
                "UPDATE t SET a = ?, b = 'x $1 ''y''', c = E'\\' $1', d = \"q$1\" -- $1\n, e = $$ $1 $$, f = $tag$ $1 $tag$ "
                        + "/* $1 /* $1 */ */ WHERE id = ? AND a$1 = ?");
        assertThat(t.markerNumbers()).containsExactly(0, 2, 1, 10);
        assertThat(t.highestNumber()).isEqualTo(10);
        assertThat(t.bareQuestionMark()).isFalse();
        assertThat(BindMarkers.toJdbc("SELECT data ? 'k' FROM t WHERE id = $1").bareQuestionMark()).isTrue();
        assertThat(BindMarkers.toJdbc("SELECT '?' FROM t").bareQuestionMark()).isFalse();
    }

    @Test
    void numbers_rewritten_markers_in_order() {
        assertThat(BindMarkers.toDollar("UPDATE t SET a = ?, b = '?' WHERE c = ? -- ?\n AND d = ?", 3))
                .isEqualTo("UPDATE t SET a = $1, b = '?' WHERE c = $2 -- ?\n AND d = $3");
    }
}
