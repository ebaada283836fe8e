# cmake -DAR=... -DMRI=... -DOUT=... -P zkl_bundle.cmake: merges static
# archives with an ar MRI script (libzkl_bundle.a, see CMakeLists.txt).
file(REMOVE ${OUT})
execute_process(COMMAND ${AR} -M INPUT_FILE ${MRI} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT EXISTS ${OUT})
  message(FATAL_ERROR "ar -M failed to write ${OUT}")
endif()
