# File: cluster.cmake
# Cluster mode (issue 13): three replicas, a real PostgreSQL 15 and the fake upstream.
add_test(
    NAME server.cluster_e2e
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/server/cluster_e2e.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(server.cluster_e2e PROPERTIES LABELS "server;cluster" TIMEOUT 180)
# What the replicas share besides snapshots: webhooks (to any replica) and the per-source call budget.
add_test(
    NAME server.cluster_share_e2e
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/server/cluster_share_e2e.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(server.cluster_share_e2e PROPERTIES LABELS "server;cluster" TIMEOUT 120)
# A corrupt or foreign row, refused by every replica like a corrupt disk snapshot, then replaced.
add_test(
    NAME server.cluster_rows_e2e
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/server/cluster_rows_e2e.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(server.cluster_rows_e2e PROPERTIES LABELS "server;cluster" TIMEOUT 120)
# Database connections lost without a word (a NAT forgetting idle ones, a silent failover), through a proxy.
add_test(
    NAME server.cluster_cut_e2e
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/server/cluster_cut_e2e.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(server.cluster_cut_e2e PROPERTIES LABELS "server;cluster" TIMEOUT 180)
# A database that stops answering (every process SIGSTOPped): serving, hooks and reloads go on; nothing lost.
add_test(
    NAME server.cluster_pause_e2e
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/server/cluster_pause_e2e.sh" $<TARGET_FILE:icsbridge>
            $<TARGET_FILE:icsbridge-fake-upstream> "${CMAKE_SOURCE_DIR}"
)
set_tests_properties(server.cluster_pause_e2e PROPERTIES LABELS "server;cluster" TIMEOUT 120)
