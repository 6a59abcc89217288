package example.accounts;

import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** The accounts table as a MyBatis mapper (found by mybatis-spring-boot's @Mapper scan). */
@Mapper
public interface AccountMapper {

    @Insert("INSERT INTO accounts (id, balance) VALUES (#{id}, #{balance})")
    int insert(@Param("id") String id, @Param("balance") long balance);

    @Update("UPDATE accounts SET balance = balance + #{amount} WHERE id = #{id}")
    int add(@Param("id") String id, @Param("amount") long amount);

    @Select("SELECT balance FROM accounts WHERE id = #{id}")
    long balance(@Param("id") String id);

    @Select("SELECT current_token FROM accounts WHERE id = #{id}")
    long storedToken(@Param("id") String id);
}
