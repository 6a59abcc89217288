package io.fenceguard.proof;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Operations as JSON lines, one file per process. Each line is flushed when written, so a process
 * that is stopped or killed loses at most the operation in flight, which then counts as unknown.
 */
public final class HistoryFile implements AutoCloseable {

    static final JsonMapper JSON = JsonMapper.builder().build();

    private final BufferedWriter out;

    private HistoryFile(BufferedWriter out) {
        this.out = out;
    }

    public static HistoryFile create(Path path) {
        try {
            Files.createDirectories(path.getParent());
            return new HistoryFile(Files.newBufferedWriter(path, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public synchronized void append(Op op) {
        try {
            out.write(JSON.writeValueAsString(op));
            out.newLine();
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<Op> read(Path path) {
        List<Op> ops = new ArrayList<>();
        if (!Files.exists(path)) {
            return ops;
        }
        try {
            for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    try {
                        ops.add(JSON.readValue(line, Op.class));
                    } catch (JacksonException partial) {
                        // the last line of a process killed while writing: its operation stays unknown
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ops;
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
