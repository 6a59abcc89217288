package io.fenceguard.jdbc.internal.proxy;

import io.fenceguard.jdbc.internal.sql.StatementPlan;
import java.sql.ParameterMetaData;
import java.sql.SQLException;

/**
 * The driver's parameter metadata seen through the application's parameter indexes: the count
 * leaves out the injected token parameters and each index answers for its first position in the
 * rewritten SQL. Frameworks ask it to choose the type of a null (Spring's {@code setNull}).
 */
final class RemappedParameterMetaData implements ParameterMetaData {

    private final ParameterMetaData driver;
    private final StatementPlan plan;

    RemappedParameterMetaData(ParameterMetaData driver, StatementPlan plan) {
        this.driver = driver;
        this.plan = plan;
    }

    private int position(int index) throws SQLException {
        int[] positions = plan.positionsOf(index);
        if (positions == null || positions.length == 0) {
            throw new SQLException("parameter index " + index + " is out of range: the statement has "
                    + plan.applicationParameterCount() + " parameters; SQL: " + plan.sql(), "07009");
        }
        return positions[0];
    }

    @Override
    public int getParameterCount() {
        return plan.applicationParameterCount();
    }

    @Override
    public int isNullable(int param) throws SQLException {
        return driver.isNullable(position(param));
    }

    @Override
    public boolean isSigned(int param) throws SQLException {
        return driver.isSigned(position(param));
    }

    @Override
    public int getPrecision(int param) throws SQLException {
        return driver.getPrecision(position(param));
    }

    @Override
    public int getScale(int param) throws SQLException {
        return driver.getScale(position(param));
    }

    @Override
    public int getParameterType(int param) throws SQLException {
        return driver.getParameterType(position(param));
    }

    @Override
    public String getParameterTypeName(int param) throws SQLException {
        return driver.getParameterTypeName(position(param));
    }

    @Override
    public String getParameterClassName(int param) throws SQLException {
        return driver.getParameterClassName(position(param));
    }

    @Override
    public int getParameterMode(int param) throws SQLException {
        return driver.getParameterMode(position(param));
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : driver.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || driver.isWrapperFor(iface);
    }
}
