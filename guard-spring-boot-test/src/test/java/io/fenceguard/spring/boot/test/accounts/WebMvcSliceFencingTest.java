package io.fenceguard.spring.boot.test.accounts;

import io.fenceguard.spring.boot.test.FencingTester;
import io.fenceguard.spring.boot.test.SupersededHolder;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.core.Fence;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;

/** A {@code @WebMvcTest} gets the fencing filter: a fenced endpoint answers 409 to a superseded holder's token. */
@WebMvcTest(AuditController.class)
class WebMvcSliceFencingTest {

    @Autowired
    MockMvc mvc;

    @Autowired
    FencingTester fencing;

    @Test
    void aFencedEndpointAnswersConflictToASupersededHolder() throws Exception {
        try (SupersededHolder stale = fencing.supersede("account:w1", () -> audit("w1", null).andExpect(status().isOk()))) {
            audit("w1", stale.newerFence()).andExpect(status().isOk());
            audit("w1", stale.fence()).andExpect(status().isConflict());
        }
    }

    @Test
    void aCallWithoutTheHeaderIsRefused() throws Exception {
        mvc.perform(post("/audit/w2")).andExpect(status().is4xxClientError());
    }

    /** A call carrying {@code fence} in the header, or the current lease's fence when null (as a RestClient sends). */
    private ResultActions audit(String id, Fence fence) throws Exception {
        Fence sent = fence != null ? fence : io.fenceguard.core.LeaseContext.requireValid().fence();
        return mvc.perform(post("/audit/{id}", id).header(FenceHeader.DEFAULT_NAME, FenceHeader.of(sent).value()));
    }
}
