/*
 * Copyright 2026 The Example Authors.
 */
package com.example.shapes;

import java.util.List;
import java.util.Map;

/**
 * Shapes holds shapes. A comment saying class Fake { must not count.
 */
@SuppressWarnings({"unchecked", "rawtypes"})
public class Shapes<T extends Shape> implements Iterable<T> {
    private static final String BRACE = "{";
    private final char open = '{', close = '}';
    private Map<String, Integer> counts, totals;
    private final Runnable task = () -> {
        System.out.println("}");
    };
    private final Comparable<String> anon = new Comparable<>() {
        @Override
        public int compareTo(String o) { return 0; }
    };

    static {
        System.out.println("static init");
    }

    /** Makes an empty set of shapes. */
    public Shapes() {
        this(List.of());
    }

    /**
     * Describes the shapes.
     * @return a description
     */
    @Override
    public String toString() {
        String block = """
            {"json": "}"}
            """;
        return block + Shapes.class.getName();
    }

    public <R> List<R> map(java.util.function.Function<T, R> f) { return null; }

    /** Kind is a kind of shape. */
    public enum Kind {
        CIRCLE("c") {
            @Override String label() { return "circle"; }
        },
        SQUARE("s");

        private final String code;

        Kind(String code) { this.code = code; }

        String label() { return code; }
    }

    static class Node {
        Node next;
    }

    public record Pair(int a, int b) {
        public Pair {
            if (a > b) throw new IllegalArgumentException();
        }
    }

    @interface Marker {
        String value() default "";
    }
    // a last comment inside the class
}

interface Shape {
    double area();
}
