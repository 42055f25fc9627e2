// The stylesheet and the table-sorting script embedded in every HTML report.
#pragma once

namespace qtune::reports {

const char* report_stylesheet();
const char* table_sort_script();

}  // namespace qtune::reports
