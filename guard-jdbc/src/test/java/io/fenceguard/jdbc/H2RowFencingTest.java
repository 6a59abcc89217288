package io.fenceguard.jdbc;

class H2RowFencingTest extends RowFencingContract {

    @Override
    SqlDialect dialect() {
        return SqlDialect.H2;
    }

    @Override
    String joinedUpdate() {
        return "UPDATE " + table + " a SET balance = a.balance + ?"
                + " WHERE a.owner IN (SELECT u.id FROM " + users + " u WHERE u.name = ?)";
    }
}
