// A small Node.js program whose trace events (Chrome trace JSON) are a test fixture: sync file I/O,
// zlib on the thread pool, a timer, some garbage collection.
const fs = require('fs');
const zlib = require('zlib');
const data = Buffer.alloc(1 << 20, 7);
for (let k = 0; k < 4; k++) {
  zlib.gzipSync(data);
  fs.writeFileSync('block' + k, data);
  fs.readFileSync('block' + k);
}
setTimeout(() => {
  let s = 0;
  for (let i = 0; i < 100000; i++) s += Math.sqrt(i);
}, 5);
