/** Ahead-of-time processing and native images: the runtime hints the starter needs. */
package io.fenceguard.spring.boot.autoconfigure.aot;
