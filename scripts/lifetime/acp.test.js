'use strict';

// The lifetime suite's cells of one client: cells.js says what passes.

require('./cells.js').defineCells('acp');
