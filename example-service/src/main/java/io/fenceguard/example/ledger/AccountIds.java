package io.fenceguard.example.ledger;

import java.util.regex.Pattern;

/** Account ids: 1 to 64 characters from A-Z a-z 0-9 _ -, so that {@code account:<id>} is a valid resource. */
public final class AccountIds {

    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private AccountIds() {
    }

    public static String require(String id) {
        if (id == null || !VALID.matcher(id).matches()) {
            throw new IllegalArgumentException("an account id is 1 to 64 characters from A-Z a-z 0-9 _ -");
        }
        return id;
    }
}
