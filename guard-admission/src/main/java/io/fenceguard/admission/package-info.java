/**
 * The admission protocol at a resource: a presented fence is admitted, refused as stale, or refused as malformed.
 */
package io.fenceguard.admission;
