/** fenceguard's exception translation installed in Hibernate's JPA dialect (Spring ORM). */
package io.fenceguard.spring.dao.orm;
