/**
 * The service provider interface of lock stores: implement {@link io.fenceguard.core.spi.LeaseProvider}
 * to plug a store into {@link io.fenceguard.core.LeaseManager}.
 */
package io.fenceguard.core.spi;
