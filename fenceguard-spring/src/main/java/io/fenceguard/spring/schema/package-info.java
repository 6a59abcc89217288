/**
 * The guard's own tables and triggers, migrated at start-up (fenceguard-jdbc-schema, optional).
 */
package io.fenceguard.spring.schema;
