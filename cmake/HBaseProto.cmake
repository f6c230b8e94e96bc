# The hbase binding's protobuf code, generated at build time and never
# committed: the .proto files it needs are extracted from HBase's own
# hbase-protocol-shaded jar (STOREBENCH_HBASE_PROTO_JAR, found by
# cmake/Bindings.cmake; the version of servers/hbase/pom.xml) into the build
# directory, run through Debian's protoc, and compiled as a library of their
# own without the project's warnings (generated code is not ours to fix).
# Plus src/db/hbase/proto/MasterAdmin.proto: the two messages of
# MasterService.CreateTable (Master.proto itself pulls in most of HBase).
# Defines the target storebench_hbase_proto (links protobuf; its headers are
# system includes: "RPC.pb.h", "Client.pb.h", ...).
set(_hbase_protos RPC Tracing HBase Client Filter Cell Comparator MapReduce Registry)
set(_hbase_proto_dir ${CMAKE_BINARY_DIR}/generated/hbase/proto)
set(_hbase_gen_dir ${CMAKE_BINARY_DIR}/generated/hbase/pb)
set(_hbase_files "")
foreach(p ${_hbase_protos})
  list(APPEND _hbase_files ${p}.proto)
endforeach()
set(_hbase_extracted "")
foreach(f ${_hbase_files})
  list(APPEND _hbase_extracted ${_hbase_proto_dir}/${f})
endforeach()
add_custom_command(
  OUTPUT ${_hbase_extracted}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_hbase_proto_dir}
  COMMAND ${CMAKE_COMMAND} -E chdir ${_hbase_proto_dir} ${CMAKE_COMMAND} -E tar xf ${STOREBENCH_HBASE_PROTO_JAR} -- ${_hbase_files}
  COMMAND ${CMAKE_COMMAND} -E touch ${_hbase_extracted}
  DEPENDS ${STOREBENCH_HBASE_PROTO_JAR}
  COMMENT "Extracting HBase's .proto files from ${STOREBENCH_HBASE_PROTO_JAR}"
  VERBATIM)
set(_hbase_srcs "")
set(_hbase_hdrs "")
foreach(p ${_hbase_protos} MasterAdmin)
  list(APPEND _hbase_srcs ${_hbase_gen_dir}/${p}.pb.cc)
  list(APPEND _hbase_hdrs ${_hbase_gen_dir}/${p}.pb.h)
endforeach()
add_custom_command(
  OUTPUT ${_hbase_srcs} ${_hbase_hdrs}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_hbase_gen_dir}
  COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_SOURCE_DIR}/src/db/hbase/proto/MasterAdmin.proto ${_hbase_proto_dir}/MasterAdmin.proto
  COMMAND ${Protobuf_PROTOC_EXECUTABLE} -I ${_hbase_proto_dir} --cpp_out=${_hbase_gen_dir} ${_hbase_files} MasterAdmin.proto
  WORKING_DIRECTORY ${_hbase_proto_dir}
  DEPENDS ${_hbase_extracted} ${CMAKE_SOURCE_DIR}/src/db/hbase/proto/MasterAdmin.proto
  COMMENT "protoc: HBase's client RPC messages"
  VERBATIM)
add_library(storebench_hbase_proto STATIC ${_hbase_srcs})
target_compile_options(storebench_hbase_proto PRIVATE -w)
target_include_directories(storebench_hbase_proto SYSTEM PUBLIC ${_hbase_gen_dir})
target_link_libraries(storebench_hbase_proto PUBLIC protobuf::libprotobuf)
