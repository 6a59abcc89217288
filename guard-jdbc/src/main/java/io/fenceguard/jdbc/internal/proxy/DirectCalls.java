package io.fenceguard.jdbc.internal.proxy;

import java.math.BigDecimal;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;

/**
 * The driver calls every statement makes, through their interfaces: parameter setters, executions, {@code next} and
 * the common getters by column index. A reflective call looks up its caller each time and goes through a generated
 * accessor: about a third of the guard's own CPU per UPDATE in a profile. Everything else goes by reflection, to the
 * same driver method.
 */
final class DirectCalls {

    /** What {@link #call} answers for a method it leaves to reflection. */
    static final Object NOT_DIRECT = new Object();

    private DirectCalls() {
    }

    /** The driver's answer to {@code method} on {@code target}, or {@link #NOT_DIRECT}. */
    static Object call(Object target, Class<?> declaring, String name, Object[] args) throws SQLException {
        if (declaring == PreparedStatement.class) {
            return preparedStatement((PreparedStatement) target, name, args);
        }
        if (declaring == ResultSet.class) {
            return resultSet((ResultSet) target, name, args);
        }
        return NOT_DIRECT;
    }

    private static Object preparedStatement(PreparedStatement target, String name, Object[] args) throws SQLException {
        if (args == null || args.length == 0) {
            switch (name) {
                case "executeUpdate":
                    return target.executeUpdate();
                case "executeQuery":
                    return target.executeQuery();
                case "execute":
                    return target.execute();
                case "executeLargeUpdate":
                    return target.executeLargeUpdate();
                case "clearParameters":
                    target.clearParameters();
                    return null;
                default:
                    return NOT_DIRECT;
            }
        }
        if (args.length != 2 || !(args[0] instanceof Integer index)) {
            return NOT_DIRECT;
        }
        Object value = args[1];
        switch (name) {
            case "setInt" -> target.setInt(index, (Integer) value);
            case "setLong" -> target.setLong(index, (Long) value);
            case "setString" -> target.setString(index, (String) value);
            case "setObject" -> target.setObject(index, DriverObjects.driverObject(value));
            case "setNull" -> target.setNull(index, (Integer) value);
            case "setBoolean" -> target.setBoolean(index, (Boolean) value);
            case "setShort" -> target.setShort(index, (Short) value);
            case "setDouble" -> target.setDouble(index, (Double) value);
            case "setFloat" -> target.setFloat(index, (Float) value);
            case "setBigDecimal" -> target.setBigDecimal(index, (BigDecimal) value);
            case "setTimestamp" -> target.setTimestamp(index, (Timestamp) value);
            case "setDate" -> target.setDate(index, (Date) value);
            case "setBytes" -> target.setBytes(index, (byte[]) value);
            default -> {
                return NOT_DIRECT;
            }
        }
        return null;
    }

    private static Object resultSet(ResultSet target, String name, Object[] args) throws SQLException {
        if (args == null || args.length == 0) {
            switch (name) {
                case "next":
                    return target.next();
                case "wasNull":
                    return target.wasNull();
                case "close":
                    target.close();
                    return null;
                default:
                    return NOT_DIRECT;
            }
        }
        if (args.length != 1) {
            return NOT_DIRECT;
        }
        if (args[0] instanceof Integer column) {
            return switch (name) {
                case "getInt" -> target.getInt(column);
                case "getLong" -> target.getLong(column);
                case "getString" -> target.getString(column);
                case "getBoolean" -> target.getBoolean(column);
                case "getBigDecimal" -> target.getBigDecimal(column);
                case "getTimestamp" -> target.getTimestamp(column);
                default -> NOT_DIRECT;
            };
        }
        return NOT_DIRECT;
    }
}
