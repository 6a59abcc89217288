package io.fenceguard.spring.dao.r2dbc;

import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Result;
import io.r2dbc.spi.Row;
import io.r2dbc.spi.RowMetadata;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/** A result whose errors (where the database's refusal of a write surfaces in R2DBC) pass through a translation. */
final class FencingTranslatedResult implements Result {

    private final Result raw;
    private final Function<Throwable, Throwable> translate;

    FencingTranslatedResult(Result raw, Function<Throwable, Throwable> translate) {
        this.raw = raw;
        this.translate = translate;
    }

    @Override
    public Publisher<Long> getRowsUpdated() {
        return Flux.from(raw.getRowsUpdated()).onErrorMap(translate);
    }

    @Override
    public <T> Publisher<T> map(BiFunction<Row, RowMetadata, ? extends T> mapping) {
        return Flux.<T>from(raw.map(mapping)).onErrorMap(translate);
    }

    @Override
    public <T> Publisher<T> map(Function<? super Readable, ? extends T> mapping) {
        return Flux.<T>from(raw.map(mapping)).onErrorMap(translate);
    }

    @Override
    public Result filter(Predicate<Result.Segment> filter) {
        return new FencingTranslatedResult(raw.filter(filter), translate);
    }

    @Override
    public <T> Publisher<T> flatMap(Function<Result.Segment, ? extends Publisher<? extends T>> mapping) {
        return Flux.<T>from(raw.flatMap(mapping)).onErrorMap(translate);
    }
}
