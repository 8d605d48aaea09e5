module.exports = (who) => `hello ${who}`;
