/**
 * The guard's own tables and triggers, migrated at start-up (fenceguard-db, optional).
 */
package io.fenceguard.spring.schema;
