const greet = require('greet');
if (greet('npm') !== 'hello npm') {
  console.error('greet is broken');
  process.exit(1);
}
console.log('tests passed');
