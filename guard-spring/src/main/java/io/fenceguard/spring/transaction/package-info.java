/**
 * Release of a lease bound to the transaction it was used in (with spring-tx; at once without it).
 */
package io.fenceguard.spring.transaction;
