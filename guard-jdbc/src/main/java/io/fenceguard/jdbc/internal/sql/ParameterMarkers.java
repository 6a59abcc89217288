package io.fenceguard.jdbc.internal.sql;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import net.sf.jsqlparser.expression.JdbcNamedParameter;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.statement.Statement;

/**
 * Renders a rewritten statement and records where every {@code ?} landed. Each parameter node is
 * relabelled with a marker carrying a random nonce (absent from the input, so it cannot come from
 * a literal) and the parameter's original ordinal; the markers found in the rendered text, in
 * order, are the positions. This stays right wherever the deparser puts a clause (it swaps
 * {@code OFFSET ? LIMIT ?}, for one) and when a node is rendered twice.
 */
final class ParameterMarkers {

    private static final List<Class<?>> PARAMETER_TYPES = List.of(JdbcParameter.class, JdbcNamedParameter.class);

    /** Either a rendering or why there is none. */
    record Rendering(String sql, int[][] positions, int[] tokenPositions, int parameterCount, String failure) {
    }

    private ParameterMarkers() {
    }

    static Rendering render(Statement statement, List<JdbcParameter> tokenParameters, String originalSql) {
        String nonce = nonceAbsentFrom(originalSql);
        String marker = "__fg" + nonce + "_";
        Map<JdbcParameter, Boolean> tokens = new IdentityHashMap<>();
        tokenParameters.forEach(p -> tokens.put(p, Boolean.TRUE));
        int applicationCount = 0;
        for (Object node : AstNodes.collect(statement, PARAMETER_TYPES)) {
            if (node instanceof JdbcNamedParameter named) {
                return failure("named parameter :" + named.getName() + " cannot be fenced");
            }
            JdbcParameter parameter = (JdbcParameter) node;
            if (tokens.containsKey(parameter)) {
                parameter.setParameterCharacter(marker + "t");
                parameter.setIndex(0);
            } else {
                if (parameter.isUseFixedIndex() || !"?".equals(parameter.getParameterCharacter())) {
                    return failure("numbered parameter " + parameter + " cannot be fenced; use ?");
                }
                applicationCount++;
                parameter.setParameterCharacter(marker + "p");
            }
            parameter.setUseFixedIndex(true);
        }
        return collect(statement.toString(), marker, applicationCount);
    }

    private static Rendering collect(String rendered, String marker, int applicationCount) {
        List<List<Integer>> byIndex = new ArrayList<>();
        for (int i = 0; i <= applicationCount; i++) {
            byIndex.add(new ArrayList<>());
        }
        List<Integer> tokenPositions = new ArrayList<>();
        StringBuilder sql = new StringBuilder(rendered.length());
        int position = 0;
        int from = 0;
        for (int at = rendered.indexOf(marker); at >= 0; at = rendered.indexOf(marker, from)) {
            sql.append(rendered, from, at).append('?');
            position++;
            int cursor = at + marker.length();
            char kind = rendered.charAt(cursor++);
            int digitsEnd = cursor;
            while (digitsEnd < rendered.length() && Character.isDigit(rendered.charAt(digitsEnd))) {
                digitsEnd++;
            }
            int ordinal = Integer.parseInt(rendered.substring(cursor, digitsEnd));
            if (kind == 't') {
                tokenPositions.add(position);
            } else if (ordinal >= 1 && ordinal <= applicationCount) {
                byIndex.get(ordinal).add(position);
            } else {
                return failure("parameter ordinal " + ordinal + " out of range");
            }
            from = digitsEnd;
        }
        sql.append(rendered, from, rendered.length());
        int[][] positions = new int[applicationCount + 1][];
        positions[0] = new int[0];
        for (int i = 1; i <= applicationCount; i++) {
            if (byIndex.get(i).isEmpty()) {
                return failure("parameter " + i + " was lost in rendering");
            }
            positions[i] = byIndex.get(i).stream().mapToInt(Integer::intValue).toArray();
        }
        return new Rendering(sql.toString(), positions, tokenPositions.stream().mapToInt(Integer::intValue).toArray(),
                position, null);
    }

    private static String nonceAbsentFrom(String sql) {
        while (true) {
            String nonce = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
            if (!sql.contains(nonce)) {
                return nonce;
            }
        }
    }

    private static Rendering failure(String why) {
        return new Rendering(null, null, null, 0, why);
    }
}
