package io.fenceguard.buildchecks;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the checks read from a class file without loading it (loading would need the class's dependencies). */
final class ClassFiles {

    private static final int ACC_PUBLIC = 0x0001;

    private ClassFiles() {
    }

    /** Whether the class file declares a public type (its access flags, after the constant pool). */
    static boolean isPublic(Path classFile) {
        try (InputStream in = Files.newInputStream(classFile)) {
            return (accessFlags(new DataInputStream(in)) & ACC_PUBLIC) != 0;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + classFile, e);
        }
    }

    private static int accessFlags(DataInputStream in) throws IOException {
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort(); // minor version
        in.readUnsignedShort(); // major version
        int count = in.readUnsignedShort();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> in.readUTF(); // Utf8
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt(); // Integer, Float, refs, NameAndType, dynamic
                case 5, 6 -> { // Long, Double: two entries
                    in.readLong();
                    i++;
                }
                case 7, 8, 16, 19, 20 -> in.readUnsignedShort(); // Class, String, MethodType, Module, Package
                case 15 -> { // MethodHandle
                    in.readUnsignedByte();
                    in.readUnsignedShort();
                }
                default -> throw new IOException("unknown constant pool tag " + tag);
            }
        }
        return in.readUnsignedShort();
    }
}
