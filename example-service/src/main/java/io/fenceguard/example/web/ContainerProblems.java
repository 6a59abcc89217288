package io.fenceguard.example.web;

import org.apache.catalina.core.StandardHost;
import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.type.LogicalType;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;

/**
 * Everything the example answers with 4xx is problem+json, also what never reaches Spring MVC:
 * Tomcat's own rejections go through {@link ProblemErrorReportValve} (set as the host's error report
 * valve), forwards to {@code /error} through {@link ProblemErrorController}. And JSON numbers are
 * strict: a string such as {@code "5"} is not accepted where a number is expected.
 */
@Configuration(proxyBeanMethods = false)
public class ContainerProblems {

    @Bean
    WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory> problemErrorReports() {
        return factory -> factory.addContextCustomizers(context -> {
            if (context.getParent() instanceof StandardHost host) {
                host.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
            }
        });
    }

    @Bean
    JsonMapperBuilderCustomizer strictJsonScalars() {
        return builder -> {
            for (LogicalType type : new LogicalType[] {LogicalType.Integer, LogicalType.Float, LogicalType.Boolean}) {
                builder.withCoercionConfig(type, config -> {
                    config.setCoercion(CoercionInputShape.String, CoercionAction.Fail);
                    config.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail);
                });
            }
        };
    }
}
