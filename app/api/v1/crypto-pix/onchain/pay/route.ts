export { payCryptoPixHandler as POST } from "@/lib/crypto-pix/handlers";
