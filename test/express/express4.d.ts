// Express 4, installed as `express4` for this test; the part used here types as Express 5 does.
declare module 'express4' {
  import express from 'express';
  export default express;
}
