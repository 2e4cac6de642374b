// A server's questions through a whole turn, the same server over Streamable HTTP (the cases: questionsCases.ts).
import { questionsCases } from './questionsCases.ts';

questionsCases('http');
