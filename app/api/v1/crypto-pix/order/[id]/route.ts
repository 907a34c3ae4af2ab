export { getCryptoPixHandler as GET } from "@/lib/crypto-pix/handlers";
