# flight.cmake: the Arrow Flight SQL server's build pieces (included at the end of
# CMakeLists.txt): protobuf-c code generated from proto/*.proto into the build directory,
# gRPC / protobuf-c linked into sqe_core, the test server driver and the command fuzz target.
pkg_check_modules(GRPC REQUIRED IMPORTED_TARGET grpc gpr)
pkg_check_modules(PROTOBUFC REQUIRED IMPORTED_TARGET libprotobuf-c)
find_program(PROTOC_C NAMES protoc-c protoc-gen-c REQUIRED)
find_path(PROTOBUF_WKT_DIR google/protobuf/any.proto PATHS /usr/include REQUIRED)

set(FLIGHT_GEN_DIR ${CMAKE_BINARY_DIR}/flight_gen)
set(FLIGHT_GEN_SOURCES
    ${FLIGHT_GEN_DIR}/flight.pb-c.c
    ${FLIGHT_GEN_DIR}/flight_sql.pb-c.c
    ${FLIGHT_GEN_DIR}/google/protobuf/any.pb-c.c
    ${FLIGHT_GEN_DIR}/google/protobuf/timestamp.pb-c.c)
set(FLIGHT_GEN_HEADERS
    ${FLIGHT_GEN_DIR}/flight.pb-c.h
    ${FLIGHT_GEN_DIR}/flight_sql.pb-c.h
    ${FLIGHT_GEN_DIR}/google/protobuf/any.pb-c.h
    ${FLIGHT_GEN_DIR}/google/protobuf/timestamp.pb-c.h)
add_custom_command(
  OUTPUT ${FLIGHT_GEN_SOURCES} ${FLIGHT_GEN_HEADERS}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${FLIGHT_GEN_DIR}
  COMMAND ${PROTOC_C} --c_out=${FLIGHT_GEN_DIR} -I ${CMAKE_SOURCE_DIR}/proto -I ${PROTOBUF_WKT_DIR}
          ${CMAKE_SOURCE_DIR}/proto/flight.proto ${CMAKE_SOURCE_DIR}/proto/flight_sql.proto
          ${PROTOBUF_WKT_DIR}/google/protobuf/any.proto
          ${PROTOBUF_WKT_DIR}/google/protobuf/timestamp.proto
  DEPENDS ${CMAKE_SOURCE_DIR}/proto/flight.proto ${CMAKE_SOURCE_DIR}/proto/flight_sql.proto
  COMMENT "protoc-c: Flight and Flight SQL messages"
  VERBATIM)
# protoc-c's generated initializers trip -Wmissing-braces; the code is not ours to fix.
set_source_files_properties(${FLIGHT_GEN_SOURCES} PROPERTIES GENERATED TRUE
                            COMPILE_OPTIONS "-Wno-missing-braces;-Wno-error")
target_sources(sqe_core PRIVATE ${FLIGHT_GEN_SOURCES})
target_include_directories(sqe_core PUBLIC ${FLIGHT_GEN_DIR})
target_link_libraries(sqe_core PUBLIC PkgConfig::GRPC PkgConfig::PROTOBUFC)
# `sqe serve` starts the Flight SQL server when this is defined (src/cli/cmd_serve.c).
target_compile_definitions(sqe_core PUBLIC SQE_WITH_FLIGHT)

add_executable(flight_test_server ${CMAKE_SOURCE_DIR}/tests/flight/flight_serve_driver.c)
target_link_libraries(flight_test_server PRIVATE ${SQE_CORE_WHOLE})
# tests/fuzz/fuzz_flight_command.c is picked up by the generic fuzz_*.c loop in
# CMakeLists.txt, which links sqe_core (and so the generated code).
