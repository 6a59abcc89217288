package io.fenceguard.reactor.webflux.r2dbc;

import io.fenceguard.jdbc.admission.PostgresAdmissionStatements;

/**
 * The statements of {@link R2dbcHighWaterStore}: the JDBC store's ({@link PostgresAdmissionStatements}) with
 * PostgreSQL's {@code $n} markers; those with a nonce in two forms, without and with the check of the nonce-since
 * table ({@code [1]}), and the signed admission's checked form also without waiting for its WAL flush
 * ({@code signedMark[2]}).
 */
record R2dbcStatements(String table, String nonceSinceTable, String mark, String current, String[] signedMark,
        String[] firstUse, String[] signedClaiming, String claiming, String insertClaim, String readClaim,
        String completeClaim, String deleteClaim, String purgeClaims, String purgeNonces, String unlogged) {

    static R2dbcStatements on(String table) {
        PostgresAdmissionStatements jdbc = PostgresAdmissionStatements.on(table);
        return new R2dbcStatements(table, jdbc.nonceSinceTable(), numbered(jdbc.mark()),
                "SELECT token FROM " + table + " WHERE resource = $1",
                new String[] {numbered(jdbc.signedMark(false, false)), numbered(jdbc.signedMark(true, false)),
                        numbered(jdbc.signedMark(true, true))},
                new String[] {numbered(jdbc.firstUse(false)), numbered(jdbc.firstUse(true))},
                new String[] {numbered(jdbc.admitClaiming(true, false)), numbered(jdbc.admitClaiming(true, true))},
                numbered(jdbc.admitClaiming(false)), numbered(jdbc.insertClaim()), numbered(jdbc.readClaim()),
                numbered(jdbc.completeClaim()), numbered(jdbc.deleteClaim()), numbered(jdbc.purgeClaims()),
                numbered(jdbc.purgeNonces()), numbered(jdbc.unlogged()));
    }

    /**
     * {@code jdbcSql} with its {@code ?} markers numbered {@code $1}, {@code $2}, …; a {@code ?} within a string
     * literal is text. The statements use neither {@code $} nor quoted identifiers.
     */
    private static String numbered(String jdbcSql) {
        if (jdbcSql.indexOf('"') >= 0 || jdbcSql.contains("$")) {
            throw new IllegalStateException("a statement with quoted identifiers or $ is not numbered mechanically: "
                    + jdbcSql);
        }
        StringBuilder numbered = new StringBuilder(jdbcSql.length() + 32);
        int marker = 0;
        boolean literal = false;
        for (int i = 0; i < jdbcSql.length(); i++) {
            char c = jdbcSql.charAt(i);
            if (c == '\'') {
                literal = !literal;   // a doubled quote inside a literal toggles twice
            }
            if (c == '?' && !literal) {
                numbered.append('$').append(++marker);
            } else {
                numbered.append(c);
            }
        }
        return numbered.toString();
    }
}
